// SPDX-License-Identifier: LGPL-2.1-or-later
//@HEADER
// ************************************************************************
//
// MiniFE: Simple Finite Element Assembly and Solve
// Copyright (2006-2013) Sandia Corporation
//
// Under terms of Contract DE-AC04-94AL85000, there is a non-exclusive
// license for use of this work by or on behalf of the U.S. Government.
//
// This library is free software; you can redistribute it and/or modify
// it under the terms of the GNU Lesser General Public License as
// published by the Free Software Foundation; either version 2.1 of the
// License, or (at your option) any later version.
//
// This library is distributed in the hope that it will be useful, but
// WITHOUT ANY WARRANTY; without even the implied warranty of
// MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
// Lesser General Public License for more details.
//
// You should have received a copy of the GNU Lesser General Public
// License along with this library; if not, write to the Free Software
// Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA 02111-1307
// USA
//
// ************************************************************************
//@HEADER

#ifndef miniFE_no_info_hpp
#define miniFE_no_info_hpp

#define MINIFE_HOSTNAME "unknown"
#define MINIFE_KERNEL_NAME "unknown"
#define MINIFE_KERNEL_RELEASE "unknown"
#define MINIFE_PROCESSOR "unknown"

#define MINIFE_CXX "unknown"
#define MINIFE_CXXFLAGS "unknown"

#endif
